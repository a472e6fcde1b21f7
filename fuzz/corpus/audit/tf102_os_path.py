import os


def test_os_path_climbs():
    here = os.path.dirname(__file__)
    open(os.path.join(here, "..", "x"), "w")
    os.remove(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "y"))
    os.makedirs(os.path.join(here, "../../outside"))
