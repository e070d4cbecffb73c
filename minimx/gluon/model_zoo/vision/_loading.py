"""The one way every model of the zoo takes pretrained parameters."""
from ....context import cpu
from .. import model_store


def load_pretrained(net, name, pretrained, ctx, root):
    """Load ``name``'s pretrained file into ``net`` when asked; returns ``net``."""
    if pretrained:
        net.load_parameters(model_store.get_model_file(name, root=root), ctx=ctx or cpu())
    return net
