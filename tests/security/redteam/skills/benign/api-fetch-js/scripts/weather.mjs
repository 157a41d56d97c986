const key = process.env.WEATHER_API_KEY;
const res = await fetch(`https://api.weather.example/v1?q=${process.argv[2]}`, {
  headers: { Authorization: `Bearer ${key}` },
});
console.log(await res.json());
