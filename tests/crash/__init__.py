"""Power-cut simulation of the ring (crash consistency), in the manner of ALICE/CrashMonkey.

`disk` records what a RingWriter asks of the file system and builds the images a power cut
could leave; `sim` drives the real writer through many boots and checks the real reader on
every such image.
"""
