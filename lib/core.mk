# lib/core.mk: owned by its area; appends to the variables of Makefile.am.
