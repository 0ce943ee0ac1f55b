# Minimal stand-in for the require_all gem (require_rel of files or folders,
# retrying files whose constants are not yet defined). The whole game folder is
# narrowed to the base engine and the two titles compared.
def require_rel(*paths)
  dir = File.dirname(caller_locations(1, 1).first.absolute_path)
  files = paths.flatten.flat_map do |p|
    full = File.expand_path(p, dir)
    if full.end_with?('/engine/game')
      [File.join(full, 'base.rb')] + %w[g_18_ms g_18_ga].flat_map { |t| Dir.glob(File.join(full, t, '**', '*.rb')).sort }
    elsif File.directory?(full)
      Dir.glob(File.join(full, '**', '*.rb')).sort
    else
      [full.end_with?('.rb') ? full : "#{full}.rb"]
    end
  end
  pending = files
  until pending.empty?
    failed = []
    error = nil
    pending.each do |f|
      require f
    rescue NameError => e
      failed << f
      error = e
    end
    raise error if failed.size == pending.size
    pending = failed
  end
end
