# frozen_string_literal: true

# Plays a seeded game of random legal actions on 18xx.games' engine and exports
# it in the site's JSON, with the state after every action (reference_states).
# Every choice comes from the engine's own steps: the action types a step offers
# the entity to move, and the choices the engine says are legal.
#
#   ENGINE_DIR=/path/to/checkout ruby -I shim driver.rb TITLE PLAYERS SEED OUT.json [optional_rule ...]
#
# ENGINE_DIR is a folder holding the site's lib/ (see README.md).

require 'json'
ENV['ENGINE_LOG_LEVEL'] ||= '4'
ENGINE_DIR = ENV.fetch('ENGINE_DIR', Dir.pwd)
require File.join(ENGINE_DIR, 'lib/engine')
# The router's file holds JavaScript for the browser in a %x{} literal; under
# Ruby that literal would run as a shell command, so it is made a no-op here.
module Engine
  class AutoRouter
    def self.`(_text) = ''
  end
end
require File.join(ENGINE_DIR, 'lib/engine/auto_router')

TITLE, NPLAYERS, SEED, OUT, *RULES = ARGV
NPLAYERS_I = NPLAYERS.to_i
SEED_I = SEED.to_i
RNG = Random.new(SEED_I)
MAX_ACTIONS = 3000

def new_game(actions)
  players = (1..NPLAYERS_I).to_h { |i| [i, "Player #{i}"] }
  Engine.game_by_title(TITLE).new(players, id: SEED_I, seed: SEED_I, actions: actions,
                                           optional_rules: RULES.map(&:to_sym))
end

def snapshot(game)
  {
    'players' => game.players.to_h do |p|
      [p.id.to_s, { 'cash' => p.cash, 'bankrupt' => p.bankrupt ? true : false,
                    'companies' => p.companies.map(&:sym).sort }]
    end,
    'corporations' => game.corporations.select(&:ipoed).to_h do |c|
      [c.name, {
        'cash' => c.cash,
        'price' => c.share_price&.price,
        'trains' => c.trains.map(&:name).sort,
        'tokens' => c.tokens.select(&:used).map { |t| t.city&.hex&.id }.compact.sort,
        'shares' => c.share_holders.select { |h, pct| h.player? && pct.positive? }.to_h { |h, pct| [h.id.to_s, pct] },
        'companies' => c.companies.map(&:sym).sort,
      }]
    end,
    'bank' => game.bank.cash,
    'round' => game.round.class.name.split('::').last,
  }
end

def share_candidates(game, step, entity)
  out = []
  game.corporations.each do |corp|
    next unless corp.ipoed

    ipo = corp.ipo_shares.reject(&:president).first
    pool = game.share_pool.shares_of(corp).first
    [ipo, pool].compact.each do |share|
      bundle = share.to_bundle
      next unless step.can_buy?(entity, bundle)

      out << Engine::Action::BuyShares.new(entity, shares: bundle.shares, share_price: bundle.price_per_share,
                                                   percent: bundle.percent)
    end
  end
  out
end

def sell_candidates(game, step, player)
  out = []
  game.corporations.each do |corp|
    game.bundles_for_corporation(player, corp).each do |bundle|
      next unless step.can_sell?(player, bundle)

      out << Engine::Action::SellShares.new(player, shares: bundle.shares, share_price: bundle.price_per_share,
                                                    percent: bundle.percent)
    end
  end
  out
end

def par_candidates(game, step, entity)
  out = []
  game.corporations.each do |corp|
    next unless game.can_par?(corp, entity)
    next unless step.can_buy?(entity, corp.shares.first&.to_bundle)

    step.get_par_prices(entity, corp).each do |price|
      out << Engine::Action::Par.new(entity, corporation: corp, share_price: price)
    end
  end
  out
end

def bid_candidates(game, step, entity)
  out = []
  if (company = step.send(:auctioning))
    min = step.min_bid(company)
    max = step.max_bid(entity, company)
    (min..max).step(5).first(4).each { |p| out << Engine::Action::Bid.new(entity, company: company, price: p) } if min <= max
    return out
  end
  step.available.each do |company|
    min = step.min_bid(company)
    next unless min

    if step.may_purchase?(company)
      out << Engine::Action::Bid.new(entity, company: company, price: min) if min <= entity.cash
      next
    end
    max = step.max_bid(entity, company)
    next if max < min

    # several bids on the dearer privates make contests of three and more bidders
    3.times { out << Engine::Action::Bid.new(entity, company: company, price: min + (5 * RNG.rand(3))) } if min + 10 <= max
    out << Engine::Action::Bid.new(entity, company: company, price: min)
  end
  out
end

def buy_company_candidates(game, step, entity)
  out = []
  companies = if step.respond_to?(:purchasable_companies)
                step.purchasable_companies(entity)
              else
                game.purchasable_companies(entity)
              end
  cash = entity.player? ? entity.cash : step.respond_to?(:buying_power) ? step.buying_power(entity) : entity.cash
  companies.each do |company|
    lo, hi = if entity.player?
               [1, company.value * 2]
             else
               [company.min_price, company.max_price]
             end
    hi = [hi, cash].min
    next if hi < lo

    lo = lo.ceil
    hi = hi.floor
    next if hi < lo

    out << Engine::Action::BuyCompany.new(entity, company: company, price: lo + RNG.rand(hi - lo + 1))
    out << Engine::Action::BuyCompany.new(entity, company: company, price: hi)
  end
  out
end

def tile_candidates(game, step, entity)
  out = []
  hexes = game.graph_for_entity(entity).connected_hexes(entity).keys.shuffle(random: RNG)
  lay = step.respond_to?(:get_tile_lay, true) ? step.send(:get_tile_lay, entity) : nil
  return out unless lay # the step is open only for a private's lay
  hexes.each do |hex|
    break if out.size >= 6 # a handful of legal lays is choice enough

    step.potential_tiles(entity, hex).each do |tile|
      # the step's lay allowance: a yellow tile, or an upgrade
      next if tile.color == :yellow && !lay[:lay]
      next if step.send(:track_upgrade?, hex.tile, tile, hex) && !lay[:upgrade]

      tile.rotate!(0)
      step.legal_tile_rotations(entity, hex, tile).each do |rot|
        tile.rotate!(rot)
        begin
          step.send(:check_track_restrictions!, entity, hex.tile, tile)
        rescue Engine::GameError
          next
        end
        out << [hex, tile, rot]
      end
      tile.rotate!(0)
    end
  end
  out.map { |hex, tile, rot| Engine::Action::LayTile.new(entity, tile: tile, hex: hex, rotation: rot) }
rescue Engine::GameError
  out = []
end

def token_candidates(game, step, entity)
  out = []
  nodes = game.token_graph_for_entity(entity).connected_nodes(entity).keys
  token = entity.next_token
  return out unless token

  nodes.each do |node|
    next unless node.city?
    next unless node.tokenable?(entity, tokens: step.available_tokens(entity))

    slot = node.get_slot(entity)
    out << Engine::Action::PlaceToken.new(entity, city: node, slot: slot || 0)
  end
  out
end

def home_token_candidates(_game, step, entity)
  token = step.pending_token
  token[:hexes].flat_map do |hex|
    hex.tile.cities.select { |c| c.tokenable?(entity, free: true, tokens: [token[:token]]) }.map do |city|
      Engine::Action::PlaceToken.new(entity, city: city, slot: city.get_slot(entity) || 0)
    end
  end
end

def route_candidates(game, entity)
  router = Engine::AutoRouter.new(game)
  trains = game.route_trains(entity).sort_by(&:price)
  train_routes, = router.path(trains, entity, path_timeout: 5)
  chosen = []
  trains.shuffle(random: RNG).each do |train|
    routes = train_routes[train].sort_by { |r| -(r.revenue rescue 0) }.first(6)
    routes.shuffle(random: RNG).each do |route|
      candidate = chosen + [route]
      ok = begin
        candidate.each do |r|
          r.clear_cache!(only_routes: true)
          r.routes = candidate
          r.revenue
        end
        game.routes_revenue(candidate)
        true
      rescue Engine::GameError
        false
      end
      if ok
        chosen = candidate
        break
      end
    end
  end
  chosen.each do |r|
    r.clear_cache!(only_routes: true)
    r.routes = chosen
  end
  [Engine::Action::RunRoutes.new(entity, routes: chosen)]
end

def train_candidates(game, step, entity)
  out = []
  step.buyable_trains(entity).each do |train|
    variants = step.buyable_train_variants(train, entity)
    variants = [train.variants[train.name] || { name: train.name, price: train.price }] if variants.empty?
    variants.each do |variant|
      if train.from_depot?
        next if variant[:price] > entity.cash && !step.president_may_contribute?(entity)

        out << Engine::Action::BuyTrain.new(entity, train: train, price: variant[:price], variant: variant[:name])
      else
        lo, hi = step.spend_minmax(entity, train)
        # the company's own cash, unless it must buy and its president helps
        hi = [hi, entity.cash].min unless entity.trains.empty?
        next if hi < lo

        out << Engine::Action::BuyTrain.new(entity, train: train, price: lo + RNG.rand(hi - lo + 1),
                                                    variant: variant[:name])
      end
    end
  end
  out
end

def signature(action)
  h = action.to_h.dup
  action.clear_cache
  %w[id created_at auto_actions].each { |k| h.delete(k) }
  h.to_a.sort_by(&:first).to_s
end

WEIGHTS = {
  'pass' => 1.0, 'bid' => 3.0, 'par' => 2.0, 'buy_shares' => 4.0, 'sell_shares' => 0.6,
  'buy_company' => 0.5, 'lay_tile' => 5.0, 'place_token' => 2.0, 'run_routes' => 100.0,
  'dividend' => 100.0, 'buy_train' => 3.0, 'discard_train' => 100.0, 'bankrupt' => 0.0
}.freeze

def candidates(game, type, entity)
  round = game.round
  step = round.step_for(entity, type)
  return [] unless step

  case type
  when 'pass' then [Engine::Action::Pass.new(entity)]
  when 'bid' then bid_candidates(game, step, entity)
  when 'par' then par_candidates(game, step, entity)
  when 'buy_shares' then share_candidates(game, step, entity)
  when 'sell_shares'
    player = entity.corporation? ? entity.owner : entity
    sell_candidates(game, step, player)
  when 'buy_company' then buy_company_candidates(game, step, entity)
  when 'lay_tile' then tile_candidates(game, step, entity)
  when 'place_token'
    step.respond_to?(:pending_token) && step.pending_token ? home_token_candidates(game, step, entity) : token_candidates(game, step, entity)
  when 'run_routes' then route_candidates(game, entity)
  when 'dividend'
    step.dividend_types.map { |k| Engine::Action::Dividend.new(entity, kind: k.to_s) }
  when 'buy_train' then train_candidates(game, step, entity)
  when 'discard_train' then entity.trains.map { |t| Engine::Action::DiscardTrain.new(entity, train: t) }
  when 'bankrupt'
    player = entity.owner
    game.respond_to?(:can_go_bankrupt?) && game.can_go_bankrupt?(player, entity) ? [Engine::Action::Bankrupt.new(entity)] : []
  else []
  end
end

def choose_action(game, refused)
  entities = []
  game.active_players.each { |p| entities << p }
  current = game.current_entity
  entities.unshift(current) if current
  entities << current.owner if current&.corporation? && current.owner
  entities.uniq!
  options = []
  entities.each do |entity|
    game.round.actions_for(entity).each do |type|
      next unless WEIGHTS.key?(type)

      options << [entity, type]
    end
  end
  return nil if options.empty?

  # bankruptcy when it is allowed and the forced purchase cannot be met otherwise, now and then
  bank = options.find { |_, t| t == 'bankrupt' }
  if bank && !(c = candidates(game, 'bankrupt', bank[0])).empty? && RNG.rand < 0.5
    return [c.first]
  end

  pool = options.reject { |_, t| t == 'bankrupt' }
  tries = []
  until pool.empty?
    total = pool.sum { |_, t| WEIGHTS[t] }
    r = RNG.rand * total
    idx = pool.index { |_, t| (r -= WEIGHTS[t]).negative? } || (pool.size - 1)
    entity, type = pool.delete_at(idx)
    cands = candidates(game, type, entity).reject { |a| refused[signature(a)] }
    tries.concat(cands.shuffle(random: RNG)) unless cands.empty?
    return tries unless tries.empty?
  end
  bank ? candidates(game, 'bankrupt', bank[0]) : []
end

game = new_game([])
states = []
stuck = nil
refused = {}
while !game.finished && game.raw_actions.size < MAX_ACTIONS
  tries = (choose_action(game, refused) || []).reject { |a| refused[signature(a)] }
  if tries.empty?
    stuck = "no action for #{game.current_entity&.name} in #{game.round.class.name} #{game.round.active_step&.class&.name}"
    break
  end
  action = tries.first
  before = game.raw_actions.size
  saved = game.raw_actions.map { |a| a.is_a?(Hash) ? a : a.to_h }
  game.process_action(action, add_auto_actions: true)
  if game.exception
    warn "refused #{action.type} #{action.entity.name}: #{game.exception.message} #{game.exception.backtrace.first(3)}" if ENV['DRIVER_DEBUG']
    refused[signature(action)] = true
    if refused.size > 200
      stuck = "too many refusals at #{before}"
      break
    end
    game = new_game(saved)
    raise "reload failed: #{game.exception.message}" if game.exception
    next
  end
  refused = {}
  states << snapshot(game).merge('id' => game.raw_actions.last['id'])
end

data = {
  'id' => SEED_I, 'title' => TITLE,
  'players' => (1..NPLAYERS_I).map { |i| { 'id' => i, 'name' => "Player #{i}" } },
  'actions' => game.raw_actions.map { |a| a.is_a?(Hash) ? a : a.to_h },
}
data['status'] = 'finished'
data['loaded'] = true
data['settings'] = { 'seed' => SEED_I, 'optional_rules' => RULES }
data['result'] = game.finished ? game.result.transform_keys(&:to_s) : nil
data['game_end_reason'] = game.finished ? game.game_end_reason.to_s : nil
data['reference_states'] = states
data['reference_stuck'] = stuck if stuck
File.write(OUT, JSON.generate(data))
puts "#{OUT} actions=#{game.raw_actions.size} finished=#{game.finished} reason=#{data['game_end_reason']} #{stuck}"
