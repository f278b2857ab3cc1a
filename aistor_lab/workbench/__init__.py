"""The workbench: what runs in the user's kernel, terminal and JupyterLab. It reaches the service over
HTTP only (client.py), never by importing it.

``client`` (the service's admin and catalog APIs), ``commands/`` (the one command table) and its
fronts ``aistor_cli`` (``aistor``), ``magics`` (``%aistor``) and the side panel (``jupyter/``);
``widgets``, ``sample_data``, and ``spark/`` (sessions and the offline jar kit).
"""
