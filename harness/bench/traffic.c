// SPDX-License-Identifier: GPL-2.0
/*
 * The traffic of the real-world shapes (issue 19), IPv4: one kind of
 * packet exchange repeated for about SECONDS; prints the mean ns per
 * exchange (instructions under BENCH_ICOUNT=1). Nothing waits on a timer:
 * what a rule drops is sent and forgotten, so that a guest whose clock
 * counts instructions measures work, not timeouts.
 *   traffic serve TCPPORT UDPPORT    echo TCP, accept and read UDP, forever
 *   traffic est DST PORT [SECONDS]   64 bytes and their echo, one connection
 *   traffic new DST PORT [SECONDS]   connect, then close with a reset
 *   traffic syn DST PORT [SECONDS]   a SYN, not waited for (closed port)
 *   traffic udp DST PORT [SECONDS]   a datagram
 *   traffic icmp DST [SECONDS]       an echo request, replies read if any
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#define MAXFD	256

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int serve(int tport, int uport)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct pollfd fds[MAXFD];
	int n = 2, one = 1, i, fd;
	char buf[2048];

	fds[0].fd = socket(AF_INET, SOCK_STREAM, 0);
	fds[1].fd = socket(AF_INET, SOCK_DGRAM, 0);
	setsockopt(fds[0].fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_port = htons(tport);
	if (bind(fds[0].fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(fds[0].fd, 128))
		return 1;
	sa.sin_port = htons(uport);
	if (bind(fds[1].fd, (struct sockaddr *)&sa, sizeof(sa)))
		return 1;
	fds[0].events = fds[1].events = POLLIN;
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		if (poll(fds, n, -1) < 0)
			continue;
		if (fds[1].revents)
			while (recv(fds[1].fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
				;
		for (i = 2; i < n; i++) {
			ssize_t len;

			if (!fds[i].revents)
				continue;
			len = recv(fds[i].fd, buf, sizeof(buf), MSG_DONTWAIT);
			if (len > 0) {
				send(fds[i].fd, buf, len, MSG_NOSIGNAL);
				continue;
			}
			if (len < 0 && errno == EAGAIN)
				continue;
			close(fds[i].fd);
			fds[i--] = fds[--n];
		}
		if (fds[0].revents) {
			fd = accept(fds[0].fd, NULL, NULL);
			if (fd >= 0 && n < MAXFD) {
				setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
					   sizeof(one));
				fds[n].fd = fd;
				fds[n++].events = POLLIN;
			} else if (fd >= 0) {
				close(fd);
			}
		}
	}
}

/* One exchange of @kind with @sa; -1 if it could not be made. */
static int exchange(const char *kind, struct sockaddr_in *sa, int *conn)
{
	static const struct linger reset = { .l_onoff = 1, .l_linger = 0 };
	char buf[64] = { 0 };
	int fd, one = 1;

	if (!strcmp(kind, "est")) {
		if (send(*conn, buf, sizeof(buf), 0) != sizeof(buf))
			return -1;
		return recv(*conn, buf, sizeof(buf), MSG_WAITALL) ==
		       sizeof(buf) ? 0 : -1;
	}
	if (!strcmp(kind, "udp") || !strcmp(kind, "icmp")) {
		struct icmphdr *h = (void *)buf;

		h->type = ICMP_ECHO;
		if (sendto(*conn, buf, sizeof(buf), 0, (struct sockaddr *)sa,
			   sizeof(*sa)) < 0 && errno != EPERM)
			return -1;
		while (recv(*conn, buf, sizeof(buf), MSG_DONTWAIT) > 0)
			;
		return 0;
	}
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
	if (!strcmp(kind, "syn")) {
		fcntl(fd, F_SETFL, O_NONBLOCK);
		connect(fd, (struct sockaddr *)sa, sizeof(*sa));
	} else if (connect(fd, (struct sockaddr *)sa, sizeof(*sa))) {
		close(fd);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	const char *kind = argc > 1 ? argv[1] : "";
	int icmp = !strcmp(kind, "icmp"), conn = -1, one = 1;
	double seconds;
	long long t0, t, n = 0;
	int i;

	if (!strcmp(kind, "serve") && argc > 3)
		return serve(atoi(argv[2]), atoi(argv[3]));
	if (argc < (icmp ? 3 : 4) || inet_pton(AF_INET, argv[2], &sa.sin_addr) != 1)
		return 2;
	if (!icmp)
		sa.sin_port = htons(atoi(argv[3]));
	seconds = argc > (icmp ? 3 : 4) ? atof(argv[icmp ? 3 : 4]) : 0.5;
	if (!strcmp(kind, "est")) {
		conn = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(conn, (struct sockaddr *)&sa, sizeof(sa)))
			return 1;
		setsockopt(conn, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	} else if (!strcmp(kind, "udp")) {
		conn = socket(AF_INET, SOCK_DGRAM, 0);
	} else if (icmp) {
		/* A ping socket: the namespace's ping_group_range must allow it. */
		conn = socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	}
	if (strcmp(kind, "new") && strcmp(kind, "syn") && conn < 0)
		return 1;
	/* One exchange before the clock starts: the connection is made. */
	if (exchange(kind, &sa, &conn))
		return 1;
	t0 = now_ns();
	do {
		for (i = 0; i < 8; i++)
			if (exchange(kind, &sa, &conn))
				return 1;
		n += 8;
		t = now_ns();
	} while (t - t0 < seconds * 1e9);
	printf("%lld\n", (t - t0) / n);
	return 0;
}
