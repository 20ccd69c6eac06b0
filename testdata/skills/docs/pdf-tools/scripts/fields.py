"""List the form fields of a PDF: python fields.py FILE.pdf."""
import sys

from pypdf import PdfReader

fields = PdfReader(sys.argv[1]).get_fields() or {}
for name, field in sorted(fields.items()):
    print(f"{name}\t{field.get('/V', '')}")
