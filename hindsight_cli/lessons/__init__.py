"""Lessons: what went wrong, named so that it can be recognised when it happens again.

``signatures``: an error's signature and a command's family, a failure's *kind*. Standard library
only, and nothing imported here: a recording hook loads ``lessons.signatures`` under ``python -S``.
"""
