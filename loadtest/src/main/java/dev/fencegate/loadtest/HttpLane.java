package dev.fencegate.loadtest;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A keep-alive HTTP/1.1 connection that carries one request at a time for its shard. When the
 * connection drops it reconnects, and it is offered to the shard again only once connected.
 */
final class HttpLane implements Lane {
    private static final int MAX_RESPONSE_BYTES = 16 << 20;
    private static final long RECONNECT_DELAY_MILLIS = 100;

    private final Shard shard;
    private final Bootstrap bootstrap;
    private final RequestPlanner planner;
    private final RequestFactory requests;
    private final long timeoutNanos;
    private Channel channel;
    private Exchange inFlight;
    private ScheduledFuture<?> deadline;
    private boolean offered;
    private boolean stopped;

    HttpLane(Shard shard, Bootstrap base, RequestPlanner planner, RequestFactory requests, long timeoutNanos) {
        this.shard = shard;
        this.planner = planner;
        this.requests = requests;
        this.timeoutNanos = timeoutNanos;
        this.bootstrap = base.clone().handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(MAX_RESPONSE_BYTES),
                        new ResponseReader(HttpLane.this));
            }
        });
    }

    ChannelFuture connect() {
        return bootstrap.connect().addListener((ChannelFuture connected) -> {
            if (!connected.isSuccess()) {
                return;
            }
            if (stopped) {
                connected.channel().close();
                return;
            }
            channel = connected.channel();
            offered = true;
            shard.laneReady(this);
        });
    }

    @Override
    public void send(long intendedNanos) {
        offered = false;
        PlannedRequest planned = planner.next();
        inFlight = new Exchange(intendedNanos, planned.expectStale(), !planned.hasToken());
        deadline = channel.eventLoop().schedule(this::timedOut, timeoutNanos, TimeUnit.NANOSECONDS);
        channel.writeAndFlush(requests.build(planned)).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    }

    @Override
    public Optional<Exchange> stop() {
        stopped = true;
        Optional<Exchange> left = Optional.ofNullable(takeInFlight());
        if (channel != null) {
            channel.close();
        }
        return left;
    }

    void answered(int status, boolean keepAlive) {
        Exchange exchange = takeInFlight();
        if (exchange == null) {
            return;
        }
        shard.answered(exchange, status);
        if (keepAlive) {
            offered = true;
            shard.laneReady(this);
        } else {
            channel.close();
        }
    }

    void closed(Channel closedChannel) {
        if (stopped || closedChannel != channel) {
            return;
        }
        Exchange exchange = takeInFlight();
        if (exchange != null) {
            shard.failed(exchange);
        }
        if (offered) {
            offered = false;
            shard.laneLost(this);
        }
        reconnect();
    }

    private void timedOut() {
        Exchange exchange = takeInFlight();
        if (exchange != null) {
            shard.timedOut(exchange);
            channel.close();
        }
    }

    private void reconnect() {
        connect().addListener((ChannelFuture connected) -> {
            if (!connected.isSuccess() && !stopped) {
                connected.channel().eventLoop().schedule(this::reconnect, RECONNECT_DELAY_MILLIS, TimeUnit.MILLISECONDS);
            }
        });
    }

    private Exchange takeInFlight() {
        Exchange exchange = inFlight;
        inFlight = null;
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
        return exchange;
    }
}
