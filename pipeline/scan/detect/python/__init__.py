"""The Python detector. ``PythonDetector`` is all this package shows the rest of the pipeline;
``detector`` reads registrations and the other modules are its parts.
"""

from pipeline.scan.detect.python.detector import PythonDetector

__all__ = ["PythonDetector"]
