"""The course's nbgrader plugins (set in nbgrader_config.py): the exchange (``exchange.py``)."""
