"""gRPC server interceptors: every request is decoded and checked at the door
(``arena.server.doors``) before its handler runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import grpc

from arena.core.text import bounded, neutralise
from arena.server.doors import refusal

RequestT = TypeVar("RequestT")
ResponseT = TypeVar("ResponseT")


class DecodeRequestsInterceptor(grpc.ServerInterceptor):
    """Decodes and checks every request inside the handler: a request that is not
    the method's message (corrupt bytes) fails with INVALID_ARGUMENT ("malformed
    CreateSeasonRequest: ...") instead of gRPC's INTERNAL "Exception deserializing
    request!", and one that breaks a rule of ``arena.server.doors.RULES`` with
    INVALID_ARGUMENT naming the field. For the methods in ``guarded`` the admin
    token is checked first (``authorize``), so a call without it fails with
    UNAUTHENTICATED whatever it carries."""

    def __init__(
        self, authorize: Callable[[grpc.ServicerContext], None], guarded: frozenset[str]
    ) -> None:
        self._authorize = authorize
        self._guarded = guarded

    def intercept_service(
        self,
        continuation: Callable[
            [grpc.HandlerCallDetails], grpc.RpcMethodHandler[RequestT, ResponseT] | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[RequestT, ResponseT] | None:
        handler = continuation(handler_call_details)
        if handler is None or handler.request_deserializer is None:
            return handler
        rewrapped = self._rewrap(handler, handler_call_details.method)
        return cast("grpc.RpcMethodHandler[RequestT, ResponseT]", rewrapped)

    def _rewrap(
        self, handler: grpc.RpcMethodHandler[Any, Any], method: str
    ) -> grpc.RpcMethodHandler[Any, Any]:
        assert handler.request_deserializer is not None
        decode = self._decoder(handler.request_deserializer, method)
        if handler.unary_unary is not None:
            unary_unary = handler.unary_unary
            return grpc.unary_unary_rpc_method_handler(
                lambda raw, context: unary_unary(decode(raw, context), context),
                response_serializer=handler.response_serializer)
        if handler.unary_stream is not None:
            unary_stream = handler.unary_stream
            return grpc.unary_stream_rpc_method_handler(
                lambda raw, context: unary_stream(decode(raw, context), context),
                response_serializer=handler.response_serializer)
        if handler.stream_unary is not None:
            stream_unary = handler.stream_unary
            return grpc.stream_unary_rpc_method_handler(
                lambda raws, context: stream_unary(
                    (decode(raw, context) for raw in raws), context),
                response_serializer=handler.response_serializer)
        if handler.stream_stream is not None:
            stream_stream = handler.stream_stream
            return grpc.stream_stream_rpc_method_handler(
                lambda raws, context: stream_stream(
                    (decode(raw, context) for raw in raws), context),
                response_serializer=handler.response_serializer)
        return handler

    def _decoder(
        self, deserializer: Callable[[bytes], Any], method: str
    ) -> Callable[[bytes, grpc.ServicerContext], Any]:
        message_type = getattr(deserializer, "__self__", None)
        type_name = getattr(message_type, "__name__", "request")
        guarded = method in self._guarded

        def decode(raw: bytes, context: grpc.ServicerContext) -> Any:
            try:
                request = deserializer(raw)
            except Exception as error:  # DecodeError, or anything a deserializer raises
                problem = f"malformed {type_name}: {bounded(neutralise(str(error)), 300)}"
            else:
                violation = refusal(request)
                if violation is None:
                    return request
                problem = f"{type_name}.{violation}"
            if guarded:
                self._authorize(context)
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, problem)
            raise AssertionError("unreachable: context.abort raises")

        return decode
