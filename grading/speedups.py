"""Faster nbgrader, same behaviour: work nbgrader repeats for every cell of every notebook, done once.

nbgrader checks each cell's nbgrader metadata with ``jsonschema.validate(meta, schema)``,
which first checks the *schema* itself against the JSON Schema meta-schema: about half a
CPU-second per submission, for a schema that never changes. ``validate`` below does what
``jsonschema.validate`` does (check the schema, validate, raise the best-matching error)
but checks each schema once. Applied by nbgrader_config.py, so the plain nbgrader CLI and
the parallel grader both use it; tests/test_forked_kernels.py compares the two validators.
"""

import json

import jsonschema
from jsonschema.exceptions import best_match

_validators = {}


def validate(instance, schema):
    """``jsonschema.validate(instance, schema)``, with the checked validator of each schema kept."""
    key = json.dumps(schema, sort_keys=True)
    validator = _validators.get(key)
    if validator is None:
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        validator = _validators[key] = cls(schema)
    error = best_match(validator.iter_errors(instance))
    if error is not None:
        raise error


class _JsonSchema:
    """What nbgrader's metadata validator uses of the jsonschema module."""

    validate = staticmethod(validate)
    ValidationError = jsonschema.ValidationError


def apply():
    from nbgrader.nbgraderformat import common

    common.jsonschema = _JsonSchema
