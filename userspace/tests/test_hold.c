// SPDX-License-Identifier: GPL-2.0-only OR MIT
/*
 * test_hold.c - `phyllo attach`'s wait (hold.c) on a pty, no module
 * needed: closing the master hangs the slave up, as unplugging a USB
 * adapter does its tty; a stop request ends the wait too. And the lock
 * names (ttylock.c) of the ttys it will meet.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "ptest.h"
#include "hold.h"
#include "ttylock.h"

static int master;
static volatile sig_atomic_t stop;

static int open_pty(void)
{
	int s;

	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) || unlockpt(master))
		return -1;
	s = open(ptsname(master), O_RDWR | O_NOCTTY);
	return s;
}

static void *close_master_later(void *arg)
{
	(void)arg;
	usleep(300000);
	close(master);
	return NULL;
}

static void *stop_later(void *arg)
{
	(void)arg;
	usleep(300000);
	stop = 1;
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void hold_tty_returns_on_hangup(void)
{
	int slave = open_pty();
	pthread_t th;
	double t0 = now_s();

	PTEST_EXPECT(slave >= 0);
	stop = 0;
	pthread_create(&th, NULL, close_master_later, NULL);
	PTEST_EXPECT_EQ(hold_tty(slave, &stop), HOLD_HUNGUP);
	PTEST_EXPECT(now_s() - t0 < 2.5);	/* within the once-a-second look */
	pthread_join(th, NULL);
	close(slave);
}

static void hold_tty_returns_when_asked_to_stop(void)
{
	int slave = open_pty();
	pthread_t th;

	PTEST_EXPECT(slave >= 0);
	stop = 0;
	pthread_create(&th, NULL, stop_later, NULL);
	PTEST_EXPECT_EQ(hold_tty(slave, &stop), HOLD_STOPPED);
	pthread_join(th, NULL);
	close(slave);
	close(master);
}

static void ttylock_name_is_the_kernels(void)
{
	char name[64];
	int slave = open_pty();
	const char *pts = ptsname(master);

	PTEST_EXPECT_EQ(ttylock_name(pts, name, sizeof(name)), 0);
	/* /dev/pts/N -> ptsN, as sysfs and `phyllo list` show it */
	PTEST_EXPECT(!strncmp(name, "pts", 3) && !strcmp(name + 3, pts + 9));
	PTEST_EXPECT_EQ(ttylock_name("/dev/null", name, sizeof(name)), 0);
	PTEST_EXPECT(!strcmp(name, "null"));
	PTEST_EXPECT_EQ(ttylock_name("/nonexistent", name, sizeof(name)), -1);
	PTEST_EXPECT_EQ(ttylock_name("/tmp", name, sizeof(name)), -1);
	close(slave);
	close(master);
}

static const struct ptest_case hold_cases[] = {
	PTEST_CASE(hold_tty_returns_on_hangup),
	PTEST_CASE(hold_tty_returns_when_asked_to_stop),
	PTEST_CASE(ttylock_name_is_the_kernels),
};

PTEST_SUITE(phyllo_suite_hold, "phyllo_hold", hold_cases);

int main(void)
{
	static const struct ptest_suite *const suites[] = { &phyllo_suite_hold };

	return ptest_run(suites, 1) ? 1 : 0;
}
