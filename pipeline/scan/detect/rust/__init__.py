"""The Rust detector. ``RustDetector`` is all this package shows the rest of the pipeline;
``detector`` reads registrations and the other modules are its parts.
"""

from pipeline.scan.detect.rust.detector import RustDetector

__all__ = ["RustDetector"]
