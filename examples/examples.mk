# examples/examples.mk: programs that use the library as a user would.
.PHONY: demo
demo:
	@echo "pathgate: demo placeholder"
