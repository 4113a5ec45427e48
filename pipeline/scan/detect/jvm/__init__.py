"""The Java and Kotlin detector. ``JavaDetector`` and ``KotlinDetector`` are all this package
shows the rest of the pipeline;
``detector`` reads registrations and the other modules are its parts.
"""

from pipeline.scan.detect.jvm.detector import JavaDetector, KotlinDetector

__all__ = ["JavaDetector", "KotlinDetector"]
