package dev.fencegate.proxy;

import dev.fencegate.admin.AdminEndpoints;
import dev.fencegate.admin.AdminRequest;
import dev.fencegate.admin.AdminResponse;
import dev.fencegate.admin.CrossSiteGate;
import dev.fencegate.config.HostPort;
import dev.fencegate.observability.ClientText;
import dev.fencegate.observability.RefusalLog;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutorGroup;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The admin port's transport. Requests are tiny, so they are aggregated, with a small limit. */
public final class AdminServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(AdminServer.class);
    private static final int MAX_ADMIN_REQUEST = 16 * 1024;
    /** Requests are answered here, off the event loop; none of them blocks. */
    private static final int HANDLER_THREADS = 2;
    /**
     * /fences blocks on the fence store, and a raise may wait seconds for writes below it to end:
     * those calls run on threads of their own, so probes and scrapes are never held behind them.
     */
    private static final int FENCE_THREADS = 4;
    /**
     * Answers a connection may have outstanding, not yet taken by its socket. A request past them
     * is not acted on: the connection closes once the answers before it are out, and the client
     * asks again on another. A client that pipelines scrapes and reads none of the answers would
     * otherwise have the gateway hold every metrics text it asked for, until the heap ran out.
     */
    static final int MOST_UNANSWERED = 4;
    /** Connections the admin port takes at once, at most: probes and scrapers need a few. */
    public static final int MOST_CONNECTIONS = 256;
    private static final Logger audit = LoggerFactory.getLogger("fencegate.audit");

    private final EventLoopGroup group;
    private final EventExecutorGroup handlers;
    private final ExecutorService fenceWork;
    private final Channel channel;

    private AdminServer(EventLoopGroup group, EventExecutorGroup handlers, ExecutorService fenceWork, Channel channel) {
        this.group = group;
        this.handlers = handlers;
        this.fenceWork = fenceWork;
        this.channel = channel;
    }

    public static AdminServer start(HostPort listen, AdminEndpoints endpoints) throws InterruptedException {
        return start(listen, endpoints, ConnectionBounds.defaults());
    }

    /**
     * The same idle timeout and head deadline as the data port, and its connection cap up to
     * {@link #MOST_CONNECTIONS}, counted apart from it.
     */
    public static AdminServer start(HostPort listen, AdminEndpoints endpoints, ConnectionBounds bounds) throws InterruptedException {
        Transport transport = Transport.best();
        EventLoopGroup group = transport.newGroup(1);
        EventExecutorGroup handlers = new DefaultEventExecutorGroup(HANDLER_THREADS, new DefaultThreadFactory("admin-handler", true));
        ExecutorService fenceWork = Executors.newFixedThreadPool(FENCE_THREADS, new DefaultThreadFactory("admin-fences", true));
        ConnectionLimit connections = new ConnectionLimit(Math.min(bounds.maxConnections(), MOST_CONNECTIONS));
        CrossSiteGate gate = new CrossSiteGate(listen.host(), endpoints.requiresToken());
        RefusalLog crossSite = new RefusalLog(audit);
        Channel channel;
        try {
            channel = ListenAddresses.bind(new ServerBootstrap()
                    .group(group)
                    .channel(transport.serverChannel())
                    .childHandler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel ch) {
                            if (!connections.admit(ch)) {
                                return;
                            }
                            HeadDeadline headDeadline = new HeadDeadline(bounds.headTimeout());
                            ch.pipeline().addLast(new IdleStateHandler(bounds.idleTimeout().toMillis(), 0, 0, TimeUnit.MILLISECONDS),
                                    headDeadline.bytes(), new HttpServerCodec(), headDeadline.heads(),
                                    new HttpObjectAggregator(MAX_ADMIN_REQUEST), new AdminTimeoutReplies());
                            ch.pipeline().addLast(handlers, new AdminHandler(endpoints, gate, crossSite, fenceWork));
                        }
                    }), "--admin-listen", listen);
        } catch (RuntimeException | InterruptedException e) {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            fenceWork.shutdownNow();
            handlers.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw e;
        }
        return new AdminServer(group, handlers, fenceWork, channel);
    }

    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        // A quiet period, so that tearing down a pipeline, which hops to the handler thread and back,
        // finds the event loop still running; then the handler threads.
        group.shutdownGracefully(100, 1_000, TimeUnit.MILLISECONDS).syncUninterruptibly();
        // The fence work first: a raise that ends hands its answer to a handler thread still running.
        fenceWork.shutdownNow();
        handlers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** One per connection; its events run on one handler thread, so {@link #previous} needs no lock. */
    private static final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final AdminEndpoints endpoints;
        private final CrossSiteGate gate;
        private final RefusalLog crossSite;
        private final Executor fenceWork;
        /** The connection's answers go out in the order its requests came, as HTTP/1.1 wants. */
        private CompletableFuture<Void> previous = CompletableFuture.completedFuture(null);
        /** Requests read and not yet answered into the socket; the count drops on the event loop. */
        private final AtomicInteger unanswered = new AtomicInteger();
        /** Past {@link #MOST_UNANSWERED}: no request is acted on any more, and the connection closes after its last answer. */
        private boolean closing;
        private ChannelFuture lastWritten;

        AdminHandler(AdminEndpoints endpoints, CrossSiteGate gate, RefusalLog crossSite, Executor fenceWork) {
            this.endpoints = endpoints;
            this.gate = gate;
            this.crossSite = crossSite;
            this.fenceWork = fenceWork;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            if (closing || unanswered.incrementAndGet() > MOST_UNANSWERED) {
                if (!closing) {
                    closing = true;
                    log.debug("admin connection {} closing: more than {} requests unanswered", ctx.channel().remoteAddress(),
                            MOST_UNANSWERED);
                    // The requests before this one are answered, and acted on; this one and those after it are neither.
                    previous = previous.whenComplete((ignored, failure) -> closeAfterLastAnswer(ctx));
                }
                return;
            }
            boolean keepAlive = HttpUtil.isKeepAlive(request) && request.decoderResult().isSuccess();
            Supplier<AdminResponse> answer;
            if (request.decoderResult().isSuccess()) {
                String rawPath = new QueryStringDecoder(request.uri()).rawPath();
                AdminRequest asked = adminRequest(ctx, request);
                Optional<AdminResponse> refused = gate.refusal(request.method().name(), rawPath, signals(request));
                refused.ifPresent(response -> crossSite.warn("admin request refused from " + asked.remoteAddress()
                        + " as coming from a web page: " + ClientText.shown(asked.method()) + " " + ClientText.shown(rawPath)
                        + " (" + ClientText.shown(new String(response.body(), StandardCharsets.UTF_8)) + ")"));
                answer = () -> refused.orElseGet(() -> endpoints.handle(asked));
                if (refused.isEmpty() && endpoints.mayBlock(rawPath)) {
                    previous = closeOnFailure(ctx, previous.thenApplyAsync(ignored -> answered(answer), fenceWork)
                            .thenAcceptAsync(response -> lastWritten = write(ctx, response, keepAlive, unanswered), ctx.executor()));
                    return;
                }
            } else {
                answer = () -> AdminResponse.text(400, "malformed request");
            }
            previous = closeOnFailure(ctx, previous.thenRun(() -> lastWritten = write(ctx, answered(answer), keepAlive, unanswered)));
        }

        private void closeAfterLastAnswer(ChannelHandlerContext ctx) {
            if (lastWritten == null) {
                ctx.channel().close();
            } else {
                lastWritten.addListener(ChannelFutureListener.CLOSE);
            }
        }

        /**
         * A request that could not be answered (the server shutting down, an error no endpoint
         * should throw) closes its connection: the requests after it never wait on an answer that
         * will not come.
         */
        private static CompletableFuture<Void> closeOnFailure(ChannelHandlerContext ctx, CompletableFuture<Void> answered) {
            return answered.exceptionally(failure -> {
                log.warn("admin request on {} not answered: {}", ctx.channel().remoteAddress(), failure.toString());
                ctx.channel().close();
                return null;
            });
        }

        /** What the endpoints answer; a failure of theirs is a 500, never a connection left without an answer. */
        private static AdminResponse answered(Supplier<AdminResponse> answer) {
            try {
                return answer.get();
            } catch (RuntimeException e) {
                return AdminResponse.text(500, "internal error: " + e);
            }
        }

        /** Writes {@code answer}; {@code unanswered} drops once the socket has taken it. */
        private static ChannelFuture write(ChannelHandlerContext ctx, AdminResponse answer, boolean keepAlive, AtomicInteger unanswered) {
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.valueOf(answer.status()), Unpooled.wrappedBuffer(answer.body()));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, answer.contentType());
            // A 404 names the path asked for: no browser is to read it as anything but its type says.
            response.headers().set("X-Content-Type-Options", "nosniff");
            answer.headers().forEach(response.headers()::set);
            HttpUtil.setContentLength(response, answer.body().length);
            HttpUtil.setKeepAlive(response, keepAlive);
            var written = ctx.writeAndFlush(response);
            written.addListener(done -> unanswered.decrementAndGet());
            if (!keepAlive) {
                written.addListener(ChannelFutureListener.CLOSE);
            }
            return written;
        }

        private static CrossSiteGate.Signals signals(FullHttpRequest request) {
            var headers = request.headers();
            return new CrossSiteGate.Signals(Optional.ofNullable(headers.get(HttpHeaderNames.ORIGIN)),
                    Optional.ofNullable(headers.get("Sec-Fetch-Site")), Optional.ofNullable(headers.get(HttpHeaderNames.HOST)),
                    Optional.ofNullable(headers.get(HttpHeaderNames.CONTENT_TYPE)));
        }

        /** The raw path keeps its escapes: /fences/%2Fa%2Fb names one resource, /a/b, not a deeper route. */
        private static AdminRequest adminRequest(ChannelHandlerContext ctx, FullHttpRequest request) {
            QueryStringDecoder uri = new QueryStringDecoder(request.uri());
            return new AdminRequest(request.method().name(), uri.rawPath(), uri.parameters(),
                    Optional.ofNullable(request.headers().get(HttpHeaderNames.AUTHORIZATION)),
                    ctx.channel().remoteAddress() instanceof InetSocketAddress remote
                            ? remote.getHostString() + ":" + remote.getPort() : String.valueOf(ctx.channel().remoteAddress()));
        }
    }
}
