"""Texel tuning of a program's numbers from games (`chespel tune`)."""
