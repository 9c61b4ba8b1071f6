"""The run folder (:mod:`.folder`): what makes a folder one, its one writer, what a command may do
to it and when, and what a run records there."""
