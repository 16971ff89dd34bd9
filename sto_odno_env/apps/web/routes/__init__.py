"""The web table's routes, one module per resource: the games (:mod:`.games`), the
records (:mod:`.replays`), the evaluation reports (:mod:`.ladder`) and the rules page
(:mod:`.rules`). Each module's handlers are plain functions of the request that find the
server's state with :func:`~sto_odno_env.apps.web.site.site_of`, and its ``ROUTES`` list
says where they answer; :func:`~sto_odno_env.apps.web.app.create_app` mounts them all."""
