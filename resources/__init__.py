"""The app's data files (model catalog, hardware profiles, prompt corpus, translations, icons).

This folder ships inside the installed package as `workbench._resources`; the code reaches it
only through `workbench.resources`, which asks `importlib.resources` for it.
"""
