"""The Jupyter server extension: ``extension`` (the ExtensionApp and what kernels inherit),
``supervisor`` and ``process`` (the service as a supervised child process), ``handlers`` (the side
panel's REST API) and ``panel`` (what those handlers answer)."""
