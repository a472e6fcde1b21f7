# Python 3.11-3.14 syntax the old grammar called TF000: none of it is an error.
def test_except_star():
    try:
        pass
    except* ValueError:
        open("a.log", "w")


def test_unpacking():
    g = 1, *"ten"
    return g


def test_t_string(name):
    t"hello {name}"
    open(t"{name}.log", "w")  # a template is not a path: fine


def test_pep701(items):
    print(f"{", ".join(items)}")
    open(f"{'out'}.txt", "w")


type Alias[T] = list[T]


def generic[T](x: T) -> T:
    match x:
        case [1, *rest] if rest:
            open("matched.txt", "w")
    return x
