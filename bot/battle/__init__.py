"""The post-battle sequence in Discord: stored runs, stage messages, persistent buttons.

- :mod:`bot.battle.state`: the stored run (phase, reports, stages, dice seeds).
- :mod:`bot.battle.engine`: one transaction per decision, then the channel;
  ``act_in_stage`` and ``find_active_run`` for the stage commands.
- :mod:`rules.stages` (not here: it is pure rules): each stage declared once.
- :mod:`bot.battle.render`: embeds. :mod:`bot.battle.views`: routed buttons and selects.

See docs/battle.md.
"""
