"""The TypeScript and JavaScript detector. ``TypeScriptDetector`` is all this package shows the rest of the pipeline;
``detector`` reads registrations and the other modules are its parts.
"""

from pipeline.scan.detect.typescript.detector import TypeScriptDetector

__all__ = ["TypeScriptDetector"]
