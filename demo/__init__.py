"""Playing with the bot offline: the demo, the interactive prompt and the arena they share.

Everything here drives the real bot against the local fake Discord (fakediscord/),
so it sits beside bot/ rather than in it: the bot's own modules never import the
fake, and this package is the only product code that does.
"""
