// SPDX-License-Identifier: GPL-2.0
/*
 * Per-packet cost at OUTPUT: UDP datagrams to DST:PORT from one socket,
 * for about SECONDS; prints the mean ns per datagram. A DROP at OUTPUT
 * fails the send with EPERM, which costs the same to handle.
 * Usage: flood 4|6 DST PORT [SECONDS]
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ss = {};
	struct sockaddr_in *s4 = (void *)&ss;
	struct sockaddr_in6 *s6 = (void *)&ss;
	double seconds = argc > 4 ? atof(argv[4]) : 0.5;
	int v6 = argc > 1 && atoi(argv[1]) == 6, fd, i;
	long long t0, t, n = 0;
	char payload[64];
	socklen_t len;

	if (argc < 4)
		return 2;
	memset(payload, 'x', sizeof(payload));
	if (v6) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(atoi(argv[3]));
		len = sizeof(*s6);
		if (inet_pton(AF_INET6, argv[2], &s6->sin6_addr) != 1)
			return 2;
	} else {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(atoi(argv[3]));
		len = sizeof(*s4);
		if (inet_pton(AF_INET, argv[2], &s4->sin_addr) != 1)
			return 2;
	}
	fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return 1;
	t0 = now_ns();
	do {
		for (i = 0; i < 16; i++)
			sendto(fd, payload, sizeof(payload), 0,
			       (struct sockaddr *)&ss, len);
		n += 16;
		t = now_ns();
	} while (t - t0 < seconds * 1e9);
	printf("%lld\n", (t - t0) / n);
	return 0;
}
