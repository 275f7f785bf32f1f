"""What a model build returns: the library's path, with the memory image its models load."""


class ModelFiles(str):
    """A compiled model's library path (the string itself, so that it goes wherever a path
    does), with the memory image its models load (sim.models.memory_images; None: the library
    has its memories compiled in)."""

    image: str | None

    def __new__(cls, library: str, image: str | None = None):
        files = super().__new__(cls, library)
        files.image = image
        return files
