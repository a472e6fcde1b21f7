from .config import save_config
