# Shortcuts; tools/dev is the real entry point (it needs no make on a fresh machine).
.PHONY: setup run test lint bench deb deb-lint lab clean

setup:
	@./tools/bootstrap

run:
	./tools/dev run

test:
	./tools/dev test

lint:
	./tools/dev lint

bench:
	./tools/dev bench

deb:
	./tools/build-deb --out build

deb-lint:
	./tools/build-deb --lint

lab:
	./lab/run

clean:
	rm -rf .venv var build *.egg-info
