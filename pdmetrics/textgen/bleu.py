"""placeholder"""
__all__ = ["bleu"]
def bleu():
    pass
