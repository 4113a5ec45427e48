"""The Swift detector. ``SwiftDetector`` is all this package shows the rest of the pipeline;
``detector`` reads registrations and the other modules are its parts.
"""

from pipeline.scan.detect.swift.detector import SwiftDetector

__all__ = ["SwiftDetector"]
