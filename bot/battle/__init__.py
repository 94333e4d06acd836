"""The post-battle sequence in Discord: stored runs, stage messages, persistent buttons.

- :mod:`bot.battle.state`: the stored run (phase, reports, stages, dice seeds).
- :mod:`bot.battle.engine`: one transaction per decision, then the channel;
  ``act_in_stage`` and ``find_active_run`` for the stage commands.
- :mod:`bot.battle.stages`: what the bot computes when a stage opens.
- :mod:`bot.battle.render`: embeds. :mod:`bot.battle.views`: dynamic buttons and selects.

See docs/battle.md.
"""
