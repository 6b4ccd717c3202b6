"""An import-linter contract type the built-in ones cannot express: a package that
imports nothing but the standard library and itself (``engine``).

A ``forbidden`` contract needs the forbidden packages listed by hand, so a package
nobody thought of (``import numpy``) passes it. This contract turns the list around:
every module imported by the source packages (relative imports resolved by grimp)
must be the standard library (``sys.stdlib_module_names``) or one of the source
packages themselves; anything else, installed or not, breaks it.

Loaded only by ``lint-imports`` (``contract_types`` in pyproject.toml), like
``arena.codegen`` a build tool outside the layers of ``arena/``.
"""

from __future__ import annotations

import sys

import grimp
from importlinter import Contract, ContractCheck, fields, output


class StandardLibraryOnlyContract(Contract):
    """``source_modules`` import only the standard library and themselves."""

    type_name = "standard_library_only"

    source_modules = fields.ListField(subfield=fields.ModuleField())

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        sources = [module.name for module in self.source_modules]  # type: ignore[attr-defined]
        allowed = set(sys.stdlib_module_names) | {"__future__"}
        allowed |= {source.split(".")[0] for source in sources}
        outside: list[tuple[str, str]] = []
        for source in sources:
            for importer in sorted({source} | graph.find_descendants(source)):
                for imported in sorted(graph.find_modules_directly_imported_by(importer)):
                    if imported.split(".")[0] not in allowed:
                        outside.append((importer, imported))
        return ContractCheck(kept=not outside, warnings=[], metadata={"outside": outside})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for importer, imported in check.metadata["outside"]:
            output.print_error(f"{importer} imports {imported}, which is neither the "
                               "standard library nor the package itself", bold=False)
            output.new_line()
