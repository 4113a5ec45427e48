"""The Go detector. ``GoDetector`` is all this package shows the rest of the pipeline;
``detector`` reads registrations and the other modules are its parts.
"""

from pipeline.scan.detect.golang.detector import GoDetector

__all__ = ["GoDetector"]
