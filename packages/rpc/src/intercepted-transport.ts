import type { DescMessage, DescMethodStreaming, DescMethodUnary, MessageInitShape } from "@bufbuild/protobuf";
import { createContextValues, type ContextValues, type Interceptor, type StreamResponse, type Transport, type UnaryResponse } from "@connectrpc/connect";
import { createMethodUrl, runStreamingCall, runUnaryCall } from "@connectrpc/connect/protocol";

type Header = ConstructorParameters<typeof Headers>[0];

/**
 * `transport` with `interceptors` run once around each call, whatever the transport does inside
 * it. A SpreadTransport may send one call to a second replica when the first refused it; run per
 * replica, an interceptor would see that refusal as the call's outcome (the gateway's per-peer
 * circuit then took the whole service for down while its other replica answered, and refused
 * every call to it for a second: 503s in each rollout). Here it sees what the caller gets.
 */
export function interceptedTransport(transport: Transport, baseUrl: string, interceptors: Interceptor[]): Transport {
  const common = (method: DescMethodUnary | DescMethodStreaming, header: Header, contextValues: ContextValues | undefined) => ({
    service: method.parent,
    requestMethod: "POST",
    url: createMethodUrl(baseUrl, method),
    header: new Headers(header),
    contextValues: contextValues ?? createContextValues(),
  });
  return {
    unary<I extends DescMessage, O extends DescMessage>(
      method: DescMethodUnary<I, O>, signal: AbortSignal | undefined, timeoutMs: number | undefined, header: Header, input: MessageInitShape<I>, contextValues?: ContextValues,
    ): Promise<UnaryResponse<I, O>> {
      return runUnaryCall<I, O>({
        interceptors,
        ...(signal ? { signal } : {}),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        req: { stream: false, method, message: input, ...common(method, header, contextValues) },
        next: (req) => transport.unary(req.method, req.signal, timeoutMs, req.header, req.message, req.contextValues),
      });
    },
    stream<I extends DescMessage, O extends DescMessage>(
      method: DescMethodStreaming<I, O>, signal: AbortSignal | undefined, timeoutMs: number | undefined, header: Header, input: AsyncIterable<MessageInitShape<I>>, contextValues?: ContextValues,
    ): Promise<StreamResponse<I, O>> {
      return runStreamingCall<I, O>({
        interceptors,
        ...(signal ? { signal } : {}),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        req: { stream: true, method, message: input, ...common(method, header, contextValues) },
        next: (req) => transport.stream(req.method, req.signal, timeoutMs, req.header, req.message, req.contextValues),
      });
    },
  };
}
