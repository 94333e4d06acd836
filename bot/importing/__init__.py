"""Bringing gangs and Trading Posts in, taking campaigns out (docs/importing.md).

Parsers (``yaktribe``, ``gangdoc``, ``tradingpost``) and the re-import logic
(``diff``, ``plan``) are pure: bytes or decoded JSON in, rules models and a
report out. ``fetch`` and ``uploads`` do the I/O, with their limits;
``preview`` builds what the player confirms. The readers run in a child
process: ``jobs`` is what it runs, ``worker`` the pool (it knows ``jobs``, and
no reader knows it), ``files`` and ``gangflow`` what the cogs await.
"""
