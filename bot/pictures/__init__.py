"""Pictures: roster cards, campaign charts and battle cards drawn as PNG bytes.

Pure drawing (no Discord, no database): models in, bytes out. See docs/pictures.md.
"""
