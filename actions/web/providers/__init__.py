"""Search providers, one small module each, behind the interface in base.py (SearchProvider)."""
