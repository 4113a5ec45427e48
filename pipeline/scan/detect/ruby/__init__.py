"""The Ruby detector. ``RubyDetector`` is all this package shows the rest of the pipeline;
``detector`` reads registrations and the other modules are its parts.
"""

from pipeline.scan.detect.ruby.detector import RubyDetector

__all__ = ["RubyDetector"]
