"""The C# detector. ``CSharpDetector`` is all this package shows the rest of the pipeline;
``detector`` reads registrations and the other modules are its parts.
"""

from pipeline.scan.detect.csharp.detector import CSharpDetector

__all__ = ["CSharpDetector"]
