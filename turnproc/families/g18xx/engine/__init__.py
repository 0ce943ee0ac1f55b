"""The pure 18xx engine: title data in, actions applied one by one, scores out.

Nothing here touches files, the clock, a database or global random state.
"""
