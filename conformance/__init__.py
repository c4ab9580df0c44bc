"""The WIA-AI-011 conformance suite: pytest tests, one module per spec section, for any ``wia_hal`` backend.

Run it with ``wia-conformance --backend NAME`` or ``pytest --wia-backend NAME --pyargs conformance``; see
``docs/conformance.md``. The suite uses only the public ``wia_hal`` API (``import wia_hal as wia``): it validates
what a user of a backend can see, never a backend's internals.

Modules: :mod:`conformance.plugin` (the pytest plugin: backend selection, the ``req`` marker, the results
collector and reports), :mod:`conformance.report` (sections, levels, verdicts, JSON and Markdown),
:mod:`conformance.strategies` (hypothesis strategies, imported as ``hh``), :mod:`conformance.assertions`
(assertion helpers, imported as ``ph``), :mod:`conformance.cli` (the ``wia-conformance`` command) and the
``test_<section>_<topic>.py`` modules.
"""
