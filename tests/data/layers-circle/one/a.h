#pragma once
int a (void);
