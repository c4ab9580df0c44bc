"""Hardware model data files (TOML), one per device; the schema is :mod:`wia_sim.hwmodel`."""
