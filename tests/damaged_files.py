"""Files damaged as a bad disk or an interrupted copy leaves them."""


def damaged_in_the_middle(data: bytes) -> bytes:
    """The file with a run of its middle bytes overwritten: its header and end marker whole, so
    Pillow decodes a JPEG so damaged to a picture half garbage, without a word."""
    middle = len(data) // 2
    return data[:middle] + b"\xab" * 500 + data[middle + 500:]
