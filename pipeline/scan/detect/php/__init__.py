"""The PHP detector. ``PhpDetector`` is all this package shows the rest of the pipeline;
``detector`` reads registrations and the other modules are its parts.
"""

from pipeline.scan.detect.php.detector import PhpDetector

__all__ = ["PhpDetector"]
