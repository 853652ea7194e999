"""esochess studio: the four languages in the browser, served by a local web app."""
