"""Helper modules the tests import (never collected: no test_ prefix)."""
