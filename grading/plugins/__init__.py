"""The course's nbgrader plugins, each switched on in nbgrader_config.py.

    preprocessors.py  autograde's and feedback's preprocessors (the sandboxed execution, the feedback page)
    sanitize.py       no student's notebook can stop `nbgrader autograde`: nbgrader's metadata is the instructor's
    speedups.py       the same behaviour, faster: work nbgrader repeats for every cell or notebook done once
    late.py           the late policy
    exchange.py       an exchange that knows who submitted
    export.py         grades into the LMS
"""
