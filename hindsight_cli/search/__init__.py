"""Search: the query object, candidate sources behind one protocol, ranking signals as data, the
pure ranking pipeline and the token budget."""
