"""Names vulture (`make lint`, tests/project/test_static_checks.py) cannot see being used,
because a framework, a protocol or a string calls them. Each line uses one name;
a name listed here is never reported anywhere, so keep the list short and say why.
Read by vulture only (pyproject.toml [tool.vulture]), never imported."""

# Hooks and attributes read by the libraries we hand objects to.
_.on_broken_pipe  # rich.Console calls it when the output's reader went away
_.no_wrap  # rich Column option, set after construction
_.row_factory  # sqlite3.Connection: rows by column name
_.trust_env  # requests.Session: read per request (the Docker client's)
_.uname, _.gname  # tarfile.TarInfo owner names of the base image's files
_.intercept_service  # grpc.ServerInterceptor's method
_.readable, _.readinto  # io.RawIOBase's protocol (upload and tar streams)
_.regex, _.to_string  # Starlette path convertors (arena/web/params.py)
_.should_exit  # uvicorn.Server's stop flag
_.linkname, _.binary_location  # tarfile.TarInfo, selenium ChromeOptions (tests)
_.initial_metadata, _.trailing_metadata, _.time_remaining, _.add_callback  # grpc.Call fakes
dask_setup  # Dask calls a preload module's dask_setup (arena/execution/cluster_roles.py)
render_broken_contract  # import-linter's Contract method (arena/import_contracts.py)
exc_info  # __exit__(self, *exc_info): the context-manager protocol's arguments
callback  # grpc.Call.add_callback's argument, in a fake
mtime_ns  # part of an lru_cache key (arena/web/rules_page.py): it is read by the cache
# Loaded by "module:name" strings: the sandbox registry, import-linter, test sandboxes.
StandardLibraryOnlyContract
warm_docker_sandbox
CountingSandbox
# Pytest fixtures requested by name as a test's argument.
fake_backend
one_busy_core
# Declared vocabularies the docs point to (what a mismatch, a status can be).
CHECKS  # arena/season/verify.py: the OutcomeMismatch check names
_.game_finished  # hollywood_sdk's view field, for bot authors
_.voided_at  # VoidedSeries field, shown by the void listing
_.possible_agents, _.agents, _.action_space  # PettingZoo's and Gymnasium's attributes
# Read by the website's template only (arena/web/templates/_sections.html).
_.alert  # StandingColumn: when the website marks a cell
_.css  # StandingColumn: the website's class of its cells
