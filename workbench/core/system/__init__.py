"""The machine beneath a run: the data folder, private files, bounded file reads, the event loop
and waits that end on time, process liveness, file descriptors, the app's log, Qt's system
libraries.
"""
