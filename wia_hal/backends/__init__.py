"""The project's own backends, each registered under the ``wia_hal.backends`` entry-point group."""
