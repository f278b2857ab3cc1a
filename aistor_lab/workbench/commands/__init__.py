"""The one command table behind the ``aistor`` CLI, the ``%aistor`` magics and the side panel:
``registry`` (the commands, their arguments, parsing and execution), ``actions`` (what each does over
the client), ``results`` (rendering as text, JSON or HTML), ``schema_text`` (the short schema syntax)."""
