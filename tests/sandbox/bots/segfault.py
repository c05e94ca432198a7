"""Dereferences a null pointer: the interpreter dies of SIGSEGV."""
import ctypes


def act(observation):
    return ctypes.string_at(0)
